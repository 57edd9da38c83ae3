"""Nonogram (Picross): fill the cells that the row and column clues describe.

Rules (catalogue §5 row 21): an n x n picture (5x5 -easy, 8x8 -hard). Each row and column has a
clue: the lengths of its runs of filled cells, in order (0 = an empty line). FILL_i declares cell
i = row * n + col filled, MARK_i declares it empty; each cell can be decided once (deciding it
again is a no-op). After a decision the cell shows its true content (▉ filled, ✗ empty), and the
message says whether your decision was right, so a wrong guess still teaches you the cell. The
episode ends when every cell is decided.

Clues (one code point per grid cell): the clues are in the HUD, one line for the rows and one for
the columns, each clue as its run lengths separated by spaces (an enum field per line).

Puzzles: a bank of 512 pictures per size, generated host-side (density 0.6) and kept only if a
line solver (every arrangement of every line, intersected, to a fixpoint) determines every cell:
each puzzle is uniquely solvable by line logic alone. Reset draws a picture and one of the 8
symmetries of the square (which preserve line solvability): 4096 puzzles per size. A test
re-solves 1,000 reset puzzles with an independent solver.

Reward: +1/n² per correct decision, -1/n² per wrong one (each cell decided at most once, so the
return lies in [-1, 1] by construction; deciding all n² cells correctly gives 1.0).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields

# 512 puzzles per size, each the bit mask of the solution (bit r * n + c = cell filled), in hex;
# produced by generate_bank(n, 512, seed=2026 + n) below (a test checks that it reproduces them).
_BANK_HEX = {
5: (
    "174d31307bb75a14beadf1ddebfc1efa6e209ee56c19b72391bfbfa40377fbd1550632133b7a10b92dbd0d7df7a18fbdea"
    "073daf90de1bd515716ea159d346176ff601a774ab1de26181d485d91ef8f1f1bb9ffe1d622bc1dab5b11ae72610c53ecf"
    "09547fe138aede0b03e3315bc2b91302d7a102df7c1f875530bfddfd1d3d2f30fab80a0dfe6051dca91908326ce042fe53"
    "15b99f91d56dbe1c5fbbd0435ef31b5effa0f7a6d3053ef2b1c329ff0f5d7be0adf75815f3c331ef560e1fb6cfd1d3ed49"
    "0c3b3ed1c6ed7f0b36d530e91cbc0b7b8bd1f7f93d03ec6ef0ba37cb0aee6c113edfaf11f4dee179ddbf15e97e710d0f73"
    "1ffe1f81f231cf0e5ee9c0c6596b13b13851cf526e0178ed411d6d6c19e96d9097f33d163779f0bd379901d16d71b794d4"
    "1d650cb1f77f7f1e7fb691a75c060b1931f1deb67d02e1eab05f27c41ce2fff1eadb3b12f5d8f121736b0479be71f0ec4b"
    "033bfc10fbffdf1bdf7380ef988f1b3dbef19ff4f41f5e77b17ecc9e1bc84fb19eb936185d1ee1f65d18163d2e01da1b6d"
    "04b11e301b5dd115be27514e5ebc03a513d12e7dc91dfcab015186d513df7bc1bf6eee033973904afccb1d6ef3b1f21bf5"
    "14f77e406faefd17fbdc50f71eff1e5f08f1de9aea0d625ff1fdc3c31feb72d03858ce1d1e57f1b99f87190db4b1d156e7"
    "0bf7ab815c2c9510a32c4171647916eb4d51f8eebd174f1bb1656f240c0f87203735d31eb79361715dbd1725e281a4dba6"
    "0578faa1ddd0fe055854e16bf03b0ed9f7507c2f6f1426cd50476feb1fa2a670f7cdfc1d1fbfc1d4bde60fff5dc15aaea9"
    "17b1bf20bb3d2f1cdb4b815ab23d017b466089ef3700a96ea0ec76bf1ee5ffe0efdbce072667b08ef77b069f5d11d1f6ce"
    "1b607f812372e214e7a141f34bc40fb235a091afe71bff9ee14e72bc1e313fc1dbf19e15ed5a81c7758f0b60ffe1dd7671"
    "13cc6ed0e0dc9610885f819df4ef0d40e7a0adf7341abdbad1ff0dfb0af5b7513f5ce71facc160fd8f19050632b1995f7f"
    "16de3af05bbbea0c57d5c1732ad709ea0dd1f0e83a1532a4d198a4f50de6cf70d3efba19c1dcb1d6cdd6105bb6c1e5ef8d"
    "0da9eab037ceab010261f081d3ff10f6a6d023292e19ffffd158afa500cafe70ecf6630f0012d01ffdf107c7fdf1dafad5"
    "0f7b4d313ffa2f1c368f817b0ebd14b71f50eaff461e63bee118c76b1a4f52f05bb05707e5a251afc9ea0aecbb61d5a797"
    "06b65e213aa9da1ab413716a9af9187e81d1ed69d807e19fb0028f3912cdee704cf2d8138f3bc087b5b706aa6331a94db9"
    "11ceafe16dfb1b13f5e75169ce8708ed6f71872c6c0a51ef31de7f7a16b9f14155dce71d82c4303a26971ffdff717b20ec"
    "0deb49b09fddfd1ca7f5817dee6c0f42ad01d737be1baa65218b9a6711ecd7517d70eb199eac90d07a3506c4c7817ed522"
    "1f7d397077715f0a6e1fa0af7b9716b45b70238f1c1cfcc571097ef3139a1de1cdd5a91df8d5d09dcd16077fdbe0983357"
    "00cd79e0bbafaf1aee7b61f9e6fb17ed1ee1addfcc1fd5dde1f3776c0e66a7709eab7f121d9a202ba9951c761891ebb5c1"
    "1d747121ce3c7712ec6d013cbc300dc978d1bef7b90cded221ffe11a14bdd6d1455bc615fbd3f1ef93bf0b8ebbc1940fd7"
    "1d7ca3f1f57e6b0e29ef9171fcd515c193b17f969f0b7faed13bb2c31bb7d2e1f01ce101ff7760d50cbf1bea77f11ef13e"
    "1d6ff361d75d5903fc50d06b443f1b77d8d14b5b7f1f7f8c70a57e660792fb313dc52c15cbf910f2e5b906ad067182517f"
    "1a73a1b0beaca707bf3570337af407f90bf1f900f916a3fff0d5ba9d14bb3f3037dd570eb5de703bbea70a93c461d2dc42"
    "0bfffe91edf7970ad017d05bee3a11fc3f71e517ed0beaccb15591651ff96d00b60c2e12d56e4073737c1fdeaf70a2eeba"
    "1bb0efb0d047fc1fd534d0bfdac81fff0ae0dd6fba1bcf3fe03bff171f28bfb1a9f3fb1adc4bd19bdaa70adff8918574f6"
    "15aceb60f8c6fc1cf9d5e1ad9efa1bece3a0ab7dfc0ffcd4f099fb791af76351fb2f9c1e4e3c30bb352f1f67380182ffee"
    "170eeef02d97b61eae8f401ad42c0fc67a502556d70c28b76039f68f1d53be21c52b981dea86f1fbc77516c9d641ffdbec"
    "0f1d37d1cf37fe17c24e51cb139f1513f9b1b7fbfc15bae5307565f31ac31ea1f275460ee5683135cef410bff8a1ba5ef8"
    "115fd630eb6e9d0fabeb01adf52e0c06ed31be01c507fb6bf07bdebf054fc85052ebb50f8ea5504a8e610bc1c45057df43"
    "0baffba18ba5eb08f553804bf9b3087ef3d0da4f3b1cc26f3165d40617ffcd30fd07630bbbd2f063c7e4087b53f0f7e35f"
    "1e64efe1b42da90bdf51608d6c1f079e4b4139647b1a781eb0358bff1f9ccdd14b4de71d45b001e154981e6f4820edcf52"
    "17ec5de1eeba9c17e959307fb037171ef4201de6291665fa708eabac19ddaef0bf52f413877b300f2bc913fffb2177e1bf"
    "06ee6e2177eb7a05d68a300f723e1b19c39169bb590bfe3871faf7be"
),
8: (
    "25dadf0d65defb99dfff53aff5fec9517b158da2d5defefe532683a5f576ddfc3f5b7dd91a2665d231bca7e3bb8ed9d2"
    "7de34fafc21553ba2ef1fc335dcb45133d6ce8cc48fdb9fd77fb515e5ef3fe8b2f17ff5d7e3b08c40f6f997177266d26"
    "76e05a75fe1f4bf300f520aa87d2faea676f1afee77ddb27a9c46d9b359eefbefe971b9acb771edea167beb7f132f4bb"
    "bde77dcfc26b629d9d1fc659facfdc99e32fff3e522fdd45ff9b342974e67faa6ebbeff55dd1776ec3f9fec7acb9b39e"
    "19020ed7fb94372bd55b9985497ba94fd674f6f6d4a911a737d8341a6ad369aadbe660fcfef840d9eb7a53c1d0712fa7"
    "65b57bfbd66fa7afc176c7c87eb377b9ee8dfc6c467ecaedc6fafa751177a153a79e5eef9652eeefd737c7ba1ad8ad63"
    "7f74895339ec3c5fedecf65bf7e5c6c215efa8b5d73c7d077b93b9f97ffa12201c81e37b409ba12eb667cd5276a377ca"
    "de9f3a8df1a7d7ee8eef0950d3fbc7dfa59f7ceba9639dbd85c3e46a77ded58e1d824d76ed1d301b7f1d8f3ee51d566b"
    "1f2effc68c8c5daa54b1f7e336fe139e5eec3a3faaa7d8abd38a9c9669bfe5dfd3e4bcf93d95e9f7bbdbf564cfa66ffc"
    "9bc6ab42fff6762e4b3336de89e765bdbdbf104647c575fbb2f4ea949ef8e94f3896bddeb838d768f19ce74dba59ef1b"
    "cadffcbfd2d177fd52c56f7aa9eff5779b799e6e0bec59f1765d7f3af7eaa933dc19758c97dcbd862bf8f73cf1c7f8ca"
    "3cfaeaf7feb2df8d76e3db96fd9ffff94a7d2ab76f3fb6f365bbc7946bb9d1ecc824cb6fbdb54a4ba083ba7e9913ca74"
    "779c8d64dfb7fd78edecdafb70778ddeeeadeae5653d66f5b5c5f4affdfbf50cb3efc8b7ff6b97bb6aeb0eb3cda7faec"
    "47f8937423ddbd58882dbe4947f13deddbecd7d9716adcf57fa09adb6eabdae0d6b74d49df735cfa7dbd6fb7129c8ec7"
    "8c801b3ff73d0c97cdd2b5e7f156795315c3cbf937d9abc9e3518ef27a7af9fbaf0b666536658ab2633f7679dfe1cbbf"
    "faef8faf9a7b3530f59cfdac8ebfe692f3ade313fd7b78ab87f97ca5831b6e390b5b2dbfb177d618aba7b1b71af56e2b"
    "ec66eaf7bc7b46d9b43c21cbbb344da4d74fb9fffb7e6e0df39a3ef00051eedf7afb78af5964423eb5a5b09bf1d6b7fe"
    "cc4dfb7fe683add3efbfc16b69c6ce6d35baf57385f7beab427cddd2d4a1bd9faf70e5caf34fe7e75af4bce9537cb8e0"
    "63ba5acddeef1823af3ec357ef4cbce219e96a2ba9b987e8afdba2fb7bf59f57f5d47b96e6efe2fee775fd6cdee92bf7"
    "b4e7ddcd6b5b07f3ddfd6bd56fce3274f986829772ff3b4ecfee947e59e8dfbeabcae4713df44b3af095bf0dbd9e84a4"
    "fdadb2bcfff42a6f654a5478f7f7ebddcd877f97c77e7c6b0c82dcf3d6efbbd3a83cff235dccf9fe012d3dd7e9a2228e"
    "f970d76dffddfbb95bf4a682fbcf737f7f56af5c12196a9df7b5f265b6c3797135fd3fdb75faa1febfef7fad33b91db8"
    "f98eccce5df47fad696abb9ed6f9cd406ffe4b0277bd3fd3b19dfac3dc9ebbfbef6d1d5e8fed947abee23cd75b999f3a"
    "dcdf3b6ffc47531faad77ee654ed80fdfb5c96f71ffff108e45b2bf792cf3ed1bd6bfbf667c1f94ebc08dee2b35ce77f"
    "e7679576bb50f7f7eb5136f897d02eaa7b1ccbf8db1d8d373ff6718522dfac2a35aa7eeee306f910a7f114df4955747f"
    "5b7bb676df1924a3b65ed17ffc0f76bfca4bb7fdacbaff12fbfa7bfd575a100defbe72e34aec1ff83eddfb9d7c5a436d"
    "f3cddb71bde597c813f849de90de96a7fd23add7d7e72bb4bdd7f8bd7e74ea528788f7bf6b3589bfa6e37ff4da45ff0c"
    "d4dfd96eff5a57b9d709d9ff3f196ce1e8af91af4f3fbc9006f55b699bfe659ba7c9ebeeb9a75d3b721eed4b7b0e1ee6"
    "f8b3a7ffcedfa5ffdba76e8fda4b88b7a7975fb76ffa3e99eaf7dcdeaaf5fe4c6698aa9a3fedd6321627b19f906f73db"
    "5126e4314e155fff779878b93e70d76f2dd91e68ec7552fcd83f7f19fffb9ccc853dc7a0b6b845fcae28ee2b21cd5bdd"
    "75ff66de1df145eda60faffe677fd35ebcc98cd139fddafb773dec9b82f6aec8dbd272ab36d3492bd7e1df0904f7de2b"
    "fee4d33fcd1c85ef5b4fa10ef6ebebf7eee384b8b8b6a6628add31ee33f765fc77cdd37f82d37bff9d2bb1b72de9c70a"
    "f68f2efbb76dbda0cf539f65f51eebabc5fbb3755bf75be3e24616ef33bfe6dbeb3bff8b416cf65abebdf7cff49e1a78"
    "5778effa359779b3cbec7b22e3f16fbfc7e9d9b3fe476bdf57fd7c9d7b4507b50eaefff573cbbc63b7b7c865f7757252"
    "dbeffc9993aefdff76fda9a9ef6b8ff77db5dbe7e2f7d93fff7c47e9e299ef9deefd9527ebce51efdfdf7dc3edcecf9f"
    "cd7cb9fd5e542c2ad7a3ff9f2936398afdf4c8d47d82bdb27371de222026677f55f35778dffad32790eeb1817f5100c9"
    "11f5ccd8d766a2b7b08da16c543e40dd9ba4a7e1b6aedaa4d7ef19b6cae9f66e7b0099aa671dd1eaffd6ff37fce7cd4f"
    "8aadf09d77ab7fec744069c67dcc75e4bceabe1f3b207faff3ffeeed6f97ffbc76ed1dd786f6aba6df4d8e5edfdf32f5"
    "b50ff78a298e5efbefe8facbffe3beb6dd8d07901f4677fe7e6b96f9871787eda0f6d568ad7ffcfa26eefb6fbfbf9edc"
    "febbc8bebd3b632a2dbdc4c4e57f97c17bacba1ecbbed8fd28ab99dedae8fecfb556ce77eb5f1530ec795f7eafbfee26"
    "cdbe869c96c8ff7ffa8f740ffc4ed52ef5437e3ecbff0cebcd9f4644e629fdfe7bd5b4977e9befafffe0ed236f6684ff"
    "6596bd7d7fcd6f381cb7fda636cad76d7d9f5df7fde63a94fe39b9cb50d8cac3af73aa2077de2be0bba9e1859ff8ef53"
    "bd4deeda4baec1f3dd3fdbffb7f53764c6baf5f348f79d37d47ec5ba3bdbb69a7fff09e26fb731f7422fd3eded90d476"
    "fc72f1bed3ec7db916dfe6dca293fe9999ff866beb5d4a3bce5edb338266ad9d9505fe3f539feaaf02cc768797b266fb"
    "efa8d67b4638966e2d06d39b7576fd685c4977efa38a5594cd5bdb56f71b74fb5fface6fd7de7d677bff46f2138a3add"
    "dcb4ebbb313bff33fb64cb27af992fe674ed79249758bf328a61f7f7df8d9797a5e26ae97a3ad9d6bed931fc7ae3b9ef"
    "cdf41973bd105e4872d24b49bbf2b332b58d7a44c8f7c4eadd0e8eab9a8eaa2c8727f831faa33ff8aee94b7ca9dfd3e6"
    "51fea3cf539e7bb597a5b9b524bbbebf5377bd7fbbbe989bbbbccdcbc317fdb30e5a5fb42af27ff6f4b75ddb677db3d5"
    "6fda438327af7e4c5d7bce65bf65b517ad5ab64e7ee3cd83a73c6741b5d3dfe7270df737efdd775360d8b1cff235ed7d"
    "7fed0bed8c927e5436dd9ed74e550358f098e4154ee2aca3ce97f256cff9a3f5aa505789f75badb77d4ed0edb6d1b23c"
    "4d7df1ba7b6df479eddd5a7b743ee67a4fffff54fbcf1a73a9d6cdb72dcf9e09fcf37d8f8eda4dfc7fbe6deafffeb926"
    "f26fcf539c1db47d2c6c8e669d7776bd4772b53a77fffc4fffb5d3f4962eccd1df7eaae50ff7fdb2b84ed978766faa87"
    "50bedb78294f0aa6dfd4f7fffdbd319ba8e8af97b9cff796797ac677635df5037b2dade2b3f07dba9f5dc53dceeeffee"
    "beca37ba802b8f263f52ff2dfc3c45eeff93be8f17fe5949f54ba8b87a3337babac32b9c5d8663df69fdf0c9e43efcd6"
    "dfda7e43d7fe682bfd7f87ebfb8f8b48b5fe7be0c5aa0179328abfbff306b20fcebf7b7eba08d55ff229e7b57b68bdd6"
    "fbbd5eedfdcd55f173b6bfea64d80ccfefc6e1a98bbee351aeba5559d97f11bd90ffdece2e539fc46d5d67e093bc2867"
    "89775aa78fdcf6ff1df67d7b2d7f9bf6f93796cf124624ba7e1ddf7bdbd7dacdd47277f35dc7cefd8f8aecbbbb4addd7"
    "6d306e77dfcefcb2d5accdba37c7ff5f3dab8b3e32beebdcc77bd5f16bb00722a7b719ffede6f46de10b7cfeff71c035"
    "36d5197fe536a8d1ccaf7f58385fade07129bfb7a975a7f3704d18f77bdf41d7fbefbee2043debf5574fdcdd329791ba"
    "d29979aebc5ac7772776db3b98e718ef7ffb7f2db437fff5feea674fcbd577162e0edf16d0219691a2c2fdd6dfe7f6c7"
    "b0ff3bf19edcae7f8d5a9e54e56ded75ca4e7a43fe5543fa60ff05bac08ff32edb5f745d9e1b32b5f3fbe7fe9cdbcc32"
    "45ff9ff21d97acfdf14cdb870723e2dfdc111aa94dfb3f50397f686f1954dcb917ff093d9296b6cfbe510af955b2effe"
    "ca53a820aff6e1fd9eff03701638fe6e53e9f0faf067da79d746aacedfe6ff68c153e5534edbae1db77676eeffc956d7"
    "ecee9ef9735d3fec7f73ddbe5bd47b352f0c6944087757defae4b1bb5c7bc7dbfeb82aad61d3ffc7ef72616e0cdc5edc"
    "badb9ac147b5f2ff6bba7cb61fffafdbb776a7a7bf9cb6df6fadfd1ae657baba7c63dbbdf7bfefda3dd8d9f33dfcacdb"
    "3aee6bacda8aff8e96ed49fdbf79cbff37bf76bd3f7e011bdf9ed77717785dd9632d775defd8fbf1c7ff647eaf72f115"
    "463faf8712bb13dbb754ff5a6eefd0f9a508579b9c537765bb3f7d14dcf3f9a678af4ff46bc9831a41ff2b5fdeefb921"
    "bed38e7afc782a8cbfc1d2fd8ccedfdece77f796a98b5179f59c33adea747c9667d3fa2dcff23ebafcf6e77ed055eb7b"
    "f7c6a378df7ecbe1b9e39e7e57c7ddc2faf21fe99f5ffdb057e31a5be7fe37b6260e24c2a9ea6777fb004bf73efff49f"
    "b733c4f45fdcb22afbf8dddcfc5a6fd37f0c47697e77a7d4c563fa49cbaffa9252f12e3eef9e57f3e7d5e9e6c0a47bbe"
    "d7466c968fbcd957455e967f7ecff4620747f8bdf26affe7dc9782b3bbe33f6a835aedce4a48ae356f6099cae5b77ff1"
    "5fc9b57f67e675d3abcdf7703b885cb3a956b7c77c62d93f0d3ff4a2c19fdbad4bcf7d23af9c93bff7bef50d6bffb002"
    "be457377724df7dc9db9fbfbb12555ff8cafa4763ac9d369db9e9c035df1b55bd7dec59df97f7df45c4b63bf53ff8fd6"
    "efe86b8e76665fbc0a7e4a96cbad475dc596b0d636f8e9fbf14f6b9b97027a2a2301f9678dd1dd7fedff9ff290fa38f2"
    "6c5e97bca687e56faead3ea5ef75a83fa2f5e2a9dfd1699ca702577ff2364fe9bbdf5b5abeb3f82ff85132f7f7cfbe3d"
    "6cdbfc9b8c8de266fe3bdbcf97df3a4fb96c87dcbec7f3a5cadf6cd0df1588aece7cec6ebb73faf62ea917f5feffe327"
    "563ced2509745b7ed09889ef52c6e595b6ae2b7ebdff69fe89efd2b67ef94bf7bedf092bfd52df3db9faae51bdfacf58"
    "d501e65de5f77372a6bef9477d4fe5f7791fff2e4ba39c4a8e4fbbde353779ef8dfebbf9a30fbe63d727b9ba7e3dea3f"
    "bfee6d08c536c97dae93bc026f015e3e7cdf7efdc0fec921e9ef77d57fb5ed8743f95bbaefec7be24f555f3dc8cd587f"
    "97b265510d90bf2d31fb97e2ae5f1fc53297b285c1efbee35fa8ebfb76f4f5a89cbffde3dd46cb1fe7673c519ede4d14"
    "faf4ebae32357fc7ec01fbe5d4f47005635bd7ff966b3a1ce4778027df98fded39dc77f21fdf76fcfdde654e7bc9373f"
    "4bc8ac56e9e438a70ddddcfef1df5ee79b15697efdf57e5f74ebef65fe6c03ac5cf3bef35a78c31c67daf8b04cd3e7dd"
    "0193f23f7d7a8cbf7bef45bf3cd55762add4deb89fff672796d5e2c25df9a9f3d8530e77d997477c9ffa9e3700decdb2"
    "4b82cb459fa71fe19d3175fcbfa36b5d3fe3262b6fe9126dfadbaa9cfee6d71cc303e6dba44dd58455f047df42bfc3c8"
    "bb32efa4871ff8a6374e47e1267dfcb5cdcdb6f1bacfccf9dd55c6ad55219fbe7773be3db43af9c31ff7b87de961927f"
    "71ffdf4764837acf91785c6778dfcfe3"
),
}

UNDECIDED, FILLED, EMPTY = "⬚", "▉", "✗"
_TABLE = codepoints(UNDECIDED + FILLED + EMPTY)
EV_RIGHT, EV_WRONG, EV_AGAIN, EV_DONE = 1, 2, 3, 4
EVENTS = ("", "Correct.", "Wrong: the cell is the opposite of what you said (now shown as it is).",
          "That cell is already decided. Nothing happens.", "Every cell is decided. The puzzle is over.")


def line_clue(bits) -> tuple[int, ...]:
    """Run lengths of filled cells in a line (empty tuple for an empty line)."""
    runs, k = [], 0
    for b in bits:
        if b:
            k += 1
        elif k:
            runs.append(k)
            k = 0
    if k:
        runs.append(k)
    return tuple(runs)


def line_tables(n: int):
    """(patterns bool[2^n, n] with bit k = cell k, clue tuples sorted, clue id of each pattern)."""
    pats = ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    clues = sorted({line_clue(p) for p in pats}, key=lambda c: (len(c), c))
    ids = {c: i for i, c in enumerate(clues)}
    return pats, clues, np.array([ids[line_clue(p)] for p in pats], np.int32)


def line_solve(sol: np.ndarray, rounds: int = 40) -> np.ndarray:
    """Host-side line solver over a batch bool[B, n, n] of pictures -> bool[B]: every cell is
    determined by repeatedly intersecting all arrangements consistent with each line's clue."""
    n = sol.shape[-1]
    pats, _, pat_clue = line_tables(n)
    w = 1 << np.arange(n)
    row_c = pat_clue[(sol * w).sum(-1)]
    col_c = pat_clue[(sol.transpose(0, 2, 1) * w).sum(-1)]
    known = np.full(sol.shape, -1, np.int8)
    for _ in range(rounds):
        before = known.copy()
        for axis in (0, 1):
            kk = known if axis == 0 else known.transpose(0, 2, 1)
            clue = row_c if axis == 0 else col_c
            ok = (pat_clue[None, None, :] == clue[..., None]) & np.all(
                (kk[:, :, None, :] < 0) | (kk[:, :, None, :] == pats[None, None]), -1)
            all_filled = np.all(~ok[..., None] | pats[None, None], axis=2)
            all_empty = np.all(~ok[..., None] | ~pats[None, None], axis=2)
            new = np.where(all_filled, 1, np.where(all_empty, 0, kk)).astype(np.int8)
            known = new if axis == 0 else new.transpose(0, 2, 1)
        if (known == before).all():
            break
    return (known >= 0).all(axis=(1, 2))


def generate_bank(n: int, count: int, seed: int, density: float = 0.6, batch: int = 800) -> list[int]:
    """Line-solvable pictures as bit masks (bit r * n + c), distinct, in generation order."""
    rng = np.random.default_rng(seed)
    out, seen = [], set()
    while len(out) < count:
        sol = rng.random((batch, n, n)) < density
        for s in sol[line_solve(sol)]:
            code = int(sum(int(b) << i for i, b in enumerate(s.reshape(-1))))
            if code not in seen:
                seen.add(code)
                out.append(code)
    return out[:count]


def bank_array(n: int) -> np.ndarray:
    """bool[512, n, n] pictures decoded from the embedded hex bank."""
    width = (n * n + 3) // 4
    text = _BANK_HEX[n]
    codes = [int(text[i:i + width], 16) for i in range(0, len(text), width)]
    bits = (np.array(codes, dtype=object)[:, None] >> np.arange(n * n)[None, :]) & 1
    return bits.astype(bool).reshape(len(codes), n, n)


@struct.dataclass
class NonogramState(EnvState):
    solution: jax.Array  # bool[n, n]
    decided: jax.Array  # bool[n, n]
    row_clues: jax.Array  # int32[n] clue ids
    col_clues: jax.Array  # int32[n]
    right: jax.Array  # int32 correct decisions
    wrong: jax.Array  # int32 wrong decisions


class Nonogram(Env):
    def __init__(self, task_id: str, n: int, max_steps: int):
        self.n = n
        self.bank = jnp.asarray(bank_array(n))
        _, clues, pat_clue = line_tables(n)
        self.pat_clue = jnp.asarray(pat_clue)
        names = tuple(" ".join(map(str, c)) if c else "0" for c in clues)
        rows = "; ".join(f"{r}: {{r{r}}}" for r in range(n))
        cols = "; ".join(f"{c}: {{c{c}}}" for c in range(n))
        cells = n * n
        self.card = TaskCard(
            id=task_id,
            rules=(f"Nonogram (Picross) on a {n}x{n} grid. Each row and column has a clue: the lengths "
                   "of its blocks of consecutive filled cells, in order (left to right, top to "
                   "bottom), separated by at least one empty cell; 0 means the line is empty. The clues "
                   f"are listed in the HUD. FILL_i says cell i = row * {n} + column is filled, MARK_i "
                   "says it is empty. Each cell can be decided once; afterwards it shows its true "
                   "content and the message says whether you were right. The puzzle has exactly one "
                   "solution and can be solved by reasoning line by line. It ends when every cell is "
                   "decided."),
            actions=tuple(f"FILL_{i}" for i in range(cells)) + tuple(f"MARK_{i}" for i in range(cells)),
            action_descriptions=tuple(f"declare row {i // n}, column {i % n} filled" for i in range(cells))
            + tuple(f"declare row {i // n}, column {i % n} empty" for i in range(cells)),
            glyphs={UNDECIDED: "undecided cell", FILLED: "filled cell (decided)",
                    EMPTY: "empty cell (decided)"},
            hud=("Step: {step} / {max_steps}    Correct: {right}    Wrong: {wrong}\n"
                 f"Row clues (row: runs): {rows}\nColumn clues (column: runs): {cols}"),
            hud_fields=("right", "wrong", *(f"r{r}" for r in range(n)), *(f"c{c}" for c in range(n))),
            hud_enums={**{f"r{r}": names for r in range(n)}, **{f"c{c}": names for c in range(n)}},
            max_steps=max_steps,
            reward=(f"+1/{cells} for each correct decision, -1/{cells} for each wrong one (each cell "
                    f"is decided once; all {cells} correct give 1.0). Return range [-1, 1]."),
            events=EVENTS,
            success="max_return",  # MAX_RETURN: every cell decided right (no wrong decision)
            grid_labels=True,
        )

    def clue_ids(self, sol: jax.Array) -> tuple[jax.Array, jax.Array]:
        w = jnp.left_shift(1, jnp.arange(self.n))
        return (self.pat_clue[jnp.sum(sol * w[None, :], axis=1)],
                self.pat_clue[jnp.sum(sol.T * w[None, :], axis=1)])

    def _reset(self, key, params):
        k1, k2 = jax.random.split(key)
        sol = self.bank[jax.random.randint(k1, (), 0, self.bank.shape[0])]
        sym = jax.random.randint(k2, (), 0, 8)
        sol = jnp.where(sym & 4 > 0, sol.T, sol)
        sol = jnp.where(sym & 1 > 0, sol[::-1], sol)
        sol = jnp.where(sym & 2 > 0, sol[:, ::-1], sol)
        rows, cols = self.clue_ids(sol)
        return NonogramState(**init_state_fields(), solution=sol,
                             decided=jnp.zeros((self.n, self.n), jnp.bool_), row_clues=rows,
                             col_clues=cols, right=jnp.int32(0), wrong=jnp.int32(0))

    def _step(self, key, state: NonogramState, action, params):
        cells = self.n * self.n
        i = jnp.clip(action, 0, 2 * cells - 1) % cells
        say_filled = action < cells
        r, c = i // self.n, i % self.n
        fresh = (action >= 0) & ~state.decided[r, c]
        correct = fresh & (say_filled == state.solution[r, c])
        wrong = fresh & ~correct
        decided = state.decided.at[r, c].set(state.decided[r, c] | fresh)
        over = jnp.all(decided)
        reward = (correct.astype(jnp.float32) - wrong.astype(jnp.float32)) / cells
        event = jnp.select([over, correct, wrong, action >= 0], [EV_DONE, EV_RIGHT, EV_WRONG, EV_AGAIN], 0)
        nxt = state.replace(decided=decided, right=state.right + correct, wrong=state.wrong + wrong)
        return nxt, reward, over, event

    def _render(self, state: NonogramState, params):
        codes = jnp.where(state.decided, jnp.where(state.solution, 1, 2), 0)
        return _TABLE[codes], (state.right, state.wrong, *state.row_clues, *state.col_clues)

    @staticmethod
    def scripted_policy(key, state: NonogramState, params):
        """Random undecided cell, random FILL/MARK (a no-logic baseline)."""
        n = state.decided.shape[0]
        k1, k2 = jax.random.split(key)
        score = jnp.where(~state.decided.reshape(-1), jax.random.uniform(k1, (n * n,)), -1.0)
        return (jnp.argmax(score) + n * n * jax.random.bernoulli(k2)).astype(jnp.int32)


NONOGRAM_VARIANTS = {"easy": (5, 100), "hard": (8, 300)}
for _name, (_n, _steps) in NONOGRAM_VARIANTS.items():
    register(f"classics/nonogram-{_name}",
             lambda name=_name, n=_n, t=_steps: Nonogram(f"classics/nonogram-{name}", n, t))
